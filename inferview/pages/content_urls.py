from django.urls import path

from . import content as views
from . import course

app_name = "questions"

urlpatterns = [
    path("", views.home, name="home"),
    path("curriculum/", views.curriculum, name="curriculum"),
    path("search/", views.search, name="search"),
    path("tracks/<slug:slug>/", views.track, name="track"),
    path("tracks/<slug:track_slug>/<int:number>/", views.question_detail, name="detail-short"),
    path(
        "tracks/<slug:track_slug>/<int:number>/<slug:slug>/", views.question_detail, name="detail"
    ),
    path("concepts/<slug:slug>/", views.concept_detail, name="concept"),
    path("guides/", views.guide_list, name="guides"),
    path("guides/<slug:slug>/", views.guide_detail, name="guide"),
    path("course/", course.course, name="course"),
    path("course/<slug:part_slug>/<slug:slug>/", course.lesson_detail, name="lesson"),
    path("course/<slug:part_slug>/<slug:slug>/check/", course.lesson_check, name="lesson-check"),
    path("course/<slug:part_slug>/<slug:slug>/done/", course.lesson_done, name="lesson-done"),
]
